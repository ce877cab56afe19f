/**
 * The items grouped by key, in the order first seen, each group in the items' order;
 * `pick` picks what a group holds (the item itself by default).
 */
export function groupBy<T, K, V = T>(
  items: Iterable<T>,
  keyOf: (item: T) => K,
  pick: (item: T) => V = (item) => item as unknown as V,
): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(pick(item));
    else groups.set(key, [pick(item)]);
  }
  return groups;
}
