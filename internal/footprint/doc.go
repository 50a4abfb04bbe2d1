// Package footprint estimates the heap memory a value holds, for caches
// bounded by bytes.
//
// [Of] walks a value through pointers, slices, maps, strings and
// interfaces, counting each allocation once. The runtime's definition
// cache (Config.Limits.DefinitionCacheBytes) sizes each parsed model with it.
//
// It uses reflection and the standard library only: no package of
// bpmnlite, no database.
package footprint
