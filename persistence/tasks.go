package persistence

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Queries and writes of the task resource: subtasks, comments,
// attachments, and the history record kept in step with its task.

// StorableText reports whether both backends store s and read it back
// equal: UTF-8 without NUL (PostgreSQL refuses both).
func StorableText(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// SubtasksOf are the tasks whose parent is task parentID.
func SubtasksOf(parentID string) Query[*Task] {
	return newQuery[*Task]("WHERE parent_task_id = $1 ORDER BY create_time, id", parentID)
}

// CommentsOfTask are the comments on task taskID, newest first (as Camunda
// lists them).
func CommentsOfTask(taskID string) Query[*TaskComment] {
	return newQuery[*TaskComment]("WHERE task_id = $1 ORDER BY create_time DESC, id DESC", taskID)
}

// CommentsOfInstance are the comments on process instance id (its tasks'
// and its own), newest first.
func CommentsOfInstance(processInstanceID string) Query[*TaskComment] {
	return newQuery[*TaskComment]("WHERE process_instance_id = $1 ORDER BY create_time DESC, id DESC", processInstanceID)
}

// AttachmentsOfTask are the attachments of task taskID, oldest first.
func AttachmentsOfTask(taskID string) Query[*TaskAttachment] {
	return newQuery[*TaskAttachment]("WHERE task_id = $1 ORDER BY create_time, id", taskID)
}

// GroupTaskCount is how many unassigned tasks one candidate group has
// (Group "": the tasks without a candidate group).
type GroupTaskCount struct {
	Group string
	Count int
}

// TaskCountByCandidateGroup counts the unassigned tasks of each candidate
// group, in the order of the groups' names, the tasks without one last.
func TaskCountByCandidateGroup(ctx context.Context, db DB) ([]GroupTaskCount, error) {
	t, err := db.Begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := t.Query(ctx, `WITH RECURSIVE entries(task_id, entry, rest) AS (
		SELECT id, CAST(NULL AS TEXT), COALESCE(candidate_groups, '') || ',' FROM task WHERE assignee IS NULL
		UNION ALL SELECT task_id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1) FROM entries WHERE rest <> '')
		SELECT NULLIF(entry, ''), count(DISTINCT task_id) FROM entries WHERE entry IS NOT NULL
		GROUP BY NULLIF(entry, '') ORDER BY NULLIF(entry, '') ASC NULLS LAST`)
	if err != nil {
		return nil, fmt.Errorf("task count by candidate group: %w", err)
	}
	defer rows.Close()
	var out []GroupTaskCount
	for rows.Next() {
		var c GroupTaskCount
		var n int64
		if err := rows.Scan(&c.Group, &n); err != nil {
			return nil, fmt.Errorf("task count by candidate group: %w", err)
		}
		c.Count = int(n)
		out = append(out, c)
	}
	return out, rows.Err()
}

// TasksWithCommentsAndAttachments tells which of tasks ids have comments
// and which have attachments.
func TasksWithCommentsAndAttachments(ctx context.Context, db DB, ids []string) (comments, attachments map[string]bool, err error) {
	comments, attachments = map[string]bool{}, map[string]bool{}
	if len(ids) == 0 {
		return comments, attachments, nil
	}
	t, err := db.Begin(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = t.Rollback(context.WithoutCancel(ctx)) }()
	in := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		in[i], args[i] = "$"+strconv.Itoa(i+1), id
	}
	for table, has := range map[string]map[string]bool{"task_comment": comments, "task_attachment": attachments} {
		rows, err := t.Query(ctx, "SELECT DISTINCT task_id FROM "+table+" WHERE task_id IN ("+strings.Join(in, ", ")+")", args...)
		if err != nil {
			return nil, nil, fmt.Errorf("tasks with comments and attachments: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, nil, err
			}
			has[id] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return comments, attachments, nil
}
