-- Dataset item history in the order the changes were made: `changed_at` is the time each
-- transaction started, so two concurrent changes of one item (serialized by its row lock) could
-- be listed in the wrong order. A sequence number taken at insert, under that lock, cannot.
ALTER TABLE dataset_item_history ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX dataset_item_history_item_idx;
CREATE INDEX dataset_item_history_item_idx ON dataset_item_history (item_id, seq);
