-- A mock response's headers keep the order their owner saved them in (docs/api.md "mock response").
-- jsonb sorts an object's keys (shorter first, then bytewise); json keeps the text as written, so
-- the API answers, and the receiver sends, the headers in the order saved. Nothing queries this
-- column with jsonb operators. Mocks saved before this migration keep the sorted order jsonb gave
-- them (their original order is gone) until their owner saves them again.
ALTER TABLE endpoints ALTER COLUMN mock_response TYPE json USING mock_response::json;
