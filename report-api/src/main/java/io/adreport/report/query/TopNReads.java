package io.adreport.report.query;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.rowkey.RowKeyCodec;
import io.adreport.schema.table.TableLayout;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import org.apache.hadoop.hbase.client.Connection;

/**
 * What a ranked top-N merge reads with and counts into, one per API: the connection and the
 * report executor its reads run on, the ordinary plan for the parts no list covers, the report's
 * deadline, the candidate bound, and the merge's counters.
 */
record TopNReads(Cube cube, Connection connection, TableLayout layout, RowKeyCodec codec, QueryPlanner planner, CounterReader reader,
                 ExecutorService executor, Duration timeout, int maxCandidates, Metrics.Counter listEntriesRead,
                 Metrics.Counter randomGets, Metrics.Counter pruned, Metrics.Counter monthLists) {
}
