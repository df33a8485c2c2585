// Bad calls of any size leave each module's heap within its size after the requests at the cap:
// the first half of the chapter modules (tests/node/heap.mjs says what is asked).
import { test } from 'node:test';
import { heapBound } from './heap.mjs';

test('bad calls of any size leave the heap of every first-half module within its size', () => heapBound(0));
