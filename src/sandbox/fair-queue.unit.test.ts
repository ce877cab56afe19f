import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.ts';

describe('FairQueue', () => {
  it('takes the queues in turns, so a long queue cannot hold back a short one', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 4; i++) q.add('a', `a${i}`);
    q.add('b', 'b1');
    q.add('c', 'c1');
    q.add('a', 'a0', true);
    expect(q.size).toBe(7);
    const order: string[] = [];
    for (let item = q.take(); item !== undefined; item = q.take()) order.push(item);
    expect(order).toEqual(['a0', 'b1', 'c1', 'a1', 'a2', 'a3', 'a4']);
    expect(q.size).toBe(0);
  });

  it('drains every waiting item', () => {
    const q = new FairQueue<number>();
    q.add('x', 1);
    q.add('y', 2);
    expect(q.drain().sort()).toEqual([1, 2]);
    expect(q.take()).toBeUndefined();
  });
});
