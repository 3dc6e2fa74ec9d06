/**
 * The value of one series (`name{labels}` exactly as exposed) in a Prometheus text exposition; undefined when absent.
 */
export function seriesValue(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
