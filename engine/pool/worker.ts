// Piscina worker entry: runs a SeriesTask on the shared series memory (engine/pool/computePool.ts).
import { runSeriesTask, type SeriesTask, type SeriesTaskResult } from './seriesTask.js';

export default function worker(task: SeriesTask): SeriesTaskResult {
  return runSeriesTask(task);
}
