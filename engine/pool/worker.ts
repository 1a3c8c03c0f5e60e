// Piscina worker entry: runs a pool task on shared memory (engine/pool/computePool.ts): series
// kernels, or position items (engine/positions/positionItems.ts).
import { computePositions, type PositionsInput, type PositionsOutput } from '../positions/positionItems.js';
import { runSeriesTask, type SeriesTask, type SeriesTaskResult } from './seriesTask.js';

export default function worker(task: SeriesTask | PositionsInput): SeriesTaskResult | PositionsOutput {
  return 'kind' in task && task.kind === 'positions' ? computePositions(task) : runSeriesTask(task as SeriesTask);
}
