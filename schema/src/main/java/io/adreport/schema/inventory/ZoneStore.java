package io.adreport.schema.inventory;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * Zone inventories in HBase: family {@code z} of the registry table {@link TableLayout#campaignsTable()}
 * (rows {@code site 0x00 zone}, one cell {@code z:v} holding {@link ZoneJson}); the campaigns live
 * in family {@code c} of the same table, so one scan refreshes a serving node's whole registry.
 * A put replaces the zone's list of ads (last writer wins; the version counts changes).
 */
public final class ZoneStore {
    private static final byte[] VALUE = {'v'};

    private final Connection connection;
    private final TableLayout layout;

    public ZoneStore(Connection connection, TableLayout layout) {
        this.connection = connection;
        this.layout = layout;
    }

    public Optional<ZoneInventory> get(String site, String zone) throws IOException {
        try (Table t = connection.getTable(layout.campaignsTable())) {
            Result r = t.get(new Get(row(site, zone)).addColumn(TableLayout.ZONE_FAMILY, VALUE));
            return r.isEmpty() ? Optional.empty() : Optional.of(ZoneJson.read(r.getValue(TableLayout.ZONE_FAMILY, VALUE)));
        }
    }

    public ZoneInventory put(ZoneInventory z) throws IOException {
        long version = get(z.site(), z.zone()).map(ZoneInventory::version).orElse(0L) + 1;
        ZoneInventory next = new ZoneInventory(z.site(), z.zone(), z.ads(), version);
        try (Table t = connection.getTable(layout.campaignsTable())) {
            t.put(new Put(row(z.site(), z.zone())).addColumn(TableLayout.ZONE_FAMILY, VALUE, ZoneJson.write(next)));
        }
        return next;
    }

    public List<ZoneInventory> list() throws IOException {
        List<ZoneInventory> out = new ArrayList<>();
        try (Table t = connection.getTable(layout.campaignsTable());
             ResultScanner s = t.getScanner(new Scan().addColumn(TableLayout.ZONE_FAMILY, VALUE).setCaching(1000))) {
            for (Result r : s) {
                out.add(ZoneJson.read(r.getValue(TableLayout.ZONE_FAMILY, VALUE)));
            }
        }
        return out;
    }

    static byte[] row(String site, String zone) {
        return (site + "\0" + zone).getBytes(StandardCharsets.UTF_8);
    }
}
