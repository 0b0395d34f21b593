/**
 * Every worker's metrics as one exposition (src/gateway/cluster/merge-metrics.ts): each family
 * once with its HELP and TYPE, every sample labelled with its worker, labelled or not before.
 */
import { describe, expect, it } from 'vitest';
import { mergeExpositions } from '../../src/gateway/cluster/merge-metrics.ts';

const worker = (requests: number, le: number) =>
  [
    '# HELP gateway_requests_total Requests.',
    '# TYPE gateway_requests_total counter',
    `gateway_requests_total{operation="a b{c}",outcome="ok"} ${requests}`,
    '# HELP up_seconds Uptime.',
    '# TYPE up_seconds gauge',
    'up_seconds 12.5',
    '# HELP latency Latency.',
    '# TYPE latency histogram',
    `latency_bucket{le="0.1"} ${le}`,
    'latency_sum 1',
    'latency_count 3',
    '',
  ].join('\n');

describe('mergeExpositions', () => {
  it('writes each family once and every worker’s samples under it, labelled worker', () => {
    const merged = mergeExpositions(
      new Map([
        [1, worker(4, 2)],
        [3, worker(7, 5)],
      ]),
    );
    expect(merged).toBe(
      [
        '# HELP gateway_requests_total Requests.',
        '# TYPE gateway_requests_total counter',
        'gateway_requests_total{worker="1",operation="a b{c}",outcome="ok"} 4',
        'gateway_requests_total{worker="3",operation="a b{c}",outcome="ok"} 7',
        '# HELP up_seconds Uptime.',
        '# TYPE up_seconds gauge',
        'up_seconds{worker="1"} 12.5',
        'up_seconds{worker="3"} 12.5',
        '# HELP latency Latency.',
        '# TYPE latency histogram',
        'latency_bucket{worker="1",le="0.1"} 2',
        'latency_sum{worker="1"} 1',
        'latency_count{worker="1"} 3',
        'latency_bucket{worker="3",le="0.1"} 5',
        'latency_sum{worker="3"} 1',
        'latency_count{worker="3"} 3',
        '',
      ].join('\n'),
    );
  });

  it('is empty when no worker answered', () => {
    expect(mergeExpositions(new Map())).toBe('');
  });
});
