/** What every answer of the metrics says about how to read it (the answers and the OpenAPI example). */
export const CAVEATS: readonly string[] = [
  'These figures are descriptive: they report what happened to the sessions of this cohort, not what the size recommendations caused.',
  'Causal claims (conversion lift, return reduction) need a randomized experiment, such as a holdout group of shoppers not offered size help.',
  'Return and kept windows may be immature: outcomes count up to observed_through, and recent purchases can still be returned, exchanged or kept.',
  'Missing integration events bias the rates: purchases sent without session_id, and returns, exchanges or kept signals never sent, are not counted.',
  'Several outcomes can apply to one line over time, so one line can count as size-returned, exchanged and kept.',
  'Counts are unique sessions and unique order lines (order_id, line_item_id), never units.',
];
