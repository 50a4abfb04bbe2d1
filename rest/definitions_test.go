package rest_test

import (
	"bytes"
	"mime/multipart"
)

// tenantDeployment is a deployment's multipart body for tenant.
func tenantDeployment(name, tenant string, files map[string]string) multipartBody {
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	_ = w.WriteField("deployment-name", name)
	_ = w.WriteField("tenant-id", tenant)
	for fname, content := range files {
		fw, _ := w.CreateFormFile(fname, fname)
		_, _ = fw.Write([]byte(content))
	}
	_ = w.Close()
	return multipartBody{buf, w.FormDataContentType()}
}
