-- Optimistic-lock checks on the server: a command's last flush and its
-- COMMIT travel in one pipeline, so a zero-row update or delete must abort
-- the transaction itself (SQLSTATE BL001) before COMMIT runs, instead of
-- being noticed by the client after the commit.
CREATE OR REPLACE FUNCTION bpmnlite_expect_row(n bigint, entity text) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    IF n = 0 THEN
        RAISE EXCEPTION '% was updated by another transaction concurrently', entity USING ERRCODE = 'BL001';
    END IF;
    RETURN n;
END
$$;
