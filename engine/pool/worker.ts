// Piscina worker entry: runs a pool task on shared memory (engine/pool/computePool.ts): series
// kernels, position items (engine/positions/positionItems.ts; as of an instant: pastPositionsTask.ts) or a window of one position's
// history (engine/positions/positionWindowTask.ts), or one position's audit (engine/audit/positionAuditTask.ts).
import { computePositionAudit, type PositionAuditInput, type PositionAuditOutput } from '../audit/positionAuditTask.js';
import { computePositions, type PositionsInput, type PositionsOutput } from '../positions/positionItems.js';
import { computePastPositions, type PastPositionsInput, type PastPositionsOutput } from '../positions/pastPositionsTask.js';
import { computePositionWindow, type PositionWindowInput, type PositionWindowOutput } from '../positions/positionWindowTask.js';
import { computeSeriesBlocks, type SeriesBlocksInput, type SeriesBlocksOutput } from '../publish/seriesBlocksTask.js';
import { runSeriesTask, type SeriesTask, type SeriesTaskResult } from './seriesTask.js';

export type PoolTask = SeriesTask | PositionsInput | PastPositionsInput | PositionWindowInput | SeriesBlocksInput | PositionAuditInput;
export type PoolResult = SeriesTaskResult | PositionsOutput | PastPositionsOutput | PositionWindowOutput | SeriesBlocksOutput | PositionAuditOutput;

export default function worker(task: PoolTask): PoolResult {
  if ('kind' in task && task.kind === 'positions') return computePositions(task);
  if ('kind' in task && task.kind === 'pastPositions') return computePastPositions(task);
  if ('kind' in task && task.kind === 'positionWindow') return computePositionWindow(task);
  if ('kind' in task && task.kind === 'seriesBlocks') return computeSeriesBlocks(task);
  if ('kind' in task && task.kind === 'positionAudit') return computePositionAudit(task);
  return runSeriesTask(task as SeriesTask);
}
