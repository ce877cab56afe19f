-- Attempt budgets across client addresses (issue 41, item 5; decision 154).
--
-- The per-address attempt limits cannot stop one account's password (or one gated dashboard's) from
-- being tried from many addresses. A budget row counts the attempts on one subject, from anywhere:
-- past the budget, each further attempt must wait a delay that doubles with every attempt, up to a
-- cap; a quiet spell as long as the configured window starts the count again. An attempt is counted
-- before the password is checked, in one statement, so parallel attempts cannot slip past the
-- count; a right password gives its attempt back. Outside any tenant (an account is not one
-- organization's), so it is used in system transactions only.
CREATE TABLE attempt_budgets (
  -- 'account' (subject: the e-mail address, lower case) or 'dashboard' (subject: its id).
  scope text NOT NULL,
  subject text NOT NULL,
  attempts integer NOT NULL,
  last_attempt_at timestamptz NOT NULL,
  -- No attempt is let through before this instant.
  next_allowed_at timestamptz NOT NULL,
  -- When the subject's owners were last told that its budget ran out (at most once a day).
  notified_at timestamptz,
  PRIMARY KEY (scope, subject)
);
CREATE INDEX attempt_budgets_last_attempt ON attempt_budgets (last_attempt_at);
