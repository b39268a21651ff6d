/**
 * One order of every name in `orders` that keeps the order of each (a C3 merge): the next name is the first list's head
 * that no list has further on, so ties go to the earlier list. Names listed by several lists appear once. Throws when two
 * lists order two names both ways.
 */
export const mergeOrders = (orders: readonly (readonly string[])[]): string[] => {
  const pending = orders.map((order) => [...new Set(order)]).filter((order) => order.length > 0);
  const merged: string[] = [];
  while (pending.length > 0) {
    const next = pending.map((order) => order[0] as string).find((head) => pending.every((order) => order.indexOf(head) <= 0));
    if (next === undefined) throw new Error(`No order keeps every list's: ${pending.map((order) => order.join(' < ')).join('; ')}`);
    merged.push(next);
    for (const order of pending) if (order[0] === next) order.shift();
    for (let i = pending.length - 1; i >= 0; i--) if (pending[i]?.length === 0) pending.splice(i, 1);
  }
  return merged;
};
