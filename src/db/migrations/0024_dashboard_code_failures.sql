-- Wrong guesses of a dashboard's e-mail code, counted on the code itself: past a few, the code is
-- voided (expired at once), so a code cannot be guessed at from many client addresses.
ALTER TABLE dashboard_access_codes ADD COLUMN failures integer NOT NULL DEFAULT 0;
