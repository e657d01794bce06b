-- Each day's kept transfers in rank order (value, then chain order). Whether a new transfer belongs
-- among its day's largest depends on the smallest of a full day's rows: read from here at each
-- followed block instead of sorting the day's rows.
CREATE INDEX exchange_largest_day_rank ON exchange_largest (chain, direction, day, value DESC, height, tx_index, recipient_index);
