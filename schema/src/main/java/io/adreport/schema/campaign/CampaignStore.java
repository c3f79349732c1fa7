package io.adreport.schema.campaign;

import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The campaign registry in HBase: table {@link TableLayout#campaignsTable()}, one row per
 * campaign ({@code advertiser 0x00 campaign}), one cell {@code c:v} holding {@link CampaignJson}.
 * A few thousand campaigns fit in one region; readers keep a copy refreshed by a full scan.
 * Writes bump {@code version} under a check-and-put on the previous value, so two concurrent
 * edits cannot silently overwrite each other: the loser gets {@link Conflict}.
 */
public final class CampaignStore {
    public static final byte[] FAMILY = TableLayout.CAMPAIGN_FAMILY;
    private static final byte[] VALUE = {'v'};

    private final Connection connection;
    private final TableLayout layout;

    public CampaignStore(Connection connection, TableLayout layout) {
        this.connection = connection;
        this.layout = layout;
    }

    /** Two writers edited the same campaign at once; the caller may re-read and retry. */
    public static final class Conflict extends IOException {
        public Conflict(String key) {
            super("campaign " + key + " changed while it was being written; read it again");
        }
    }

    public Optional<Campaign> get(String advertiser, String campaign) throws IOException {
        try (Table t = connection.getTable(layout.campaignsTable())) {
            Result r = t.get(new Get(row(advertiser, campaign)).addColumn(FAMILY, VALUE));
            return r.isEmpty() ? Optional.empty() : Optional.of(CampaignJson.read(r.getValue(FAMILY, VALUE)));
        }
    }

    /**
     * Stores {@code c} as the next version of its campaign and returns what was stored.
     *
     * @throws Conflict when another write landed between the read and this one
     */
    public Campaign put(Campaign c) throws IOException {
        byte[] row = row(c.advertiser(), c.campaign());
        try (Table t = connection.getTable(layout.campaignsTable())) {
            Result r = t.get(new Get(row).addColumn(FAMILY, VALUE));
            byte[] previous = r.isEmpty() ? null : r.getValue(FAMILY, VALUE);
            long version = previous == null ? 1 : CampaignJson.read(previous).version() + 1;
            Campaign next = c.withVersion(version);
            Put put = new Put(row).addColumn(FAMILY, VALUE, CampaignJson.write(next));
            CheckAndMutate.Builder check = CheckAndMutate.newBuilder(row);
            CheckAndMutate cam = previous == null ? check.ifNotExists(FAMILY, VALUE).build(put)
                    : check.ifEquals(FAMILY, VALUE, previous).build(put);
            boolean ok = t.checkAndMutate(cam).isSuccess();
            if (!ok) {
                throw new Conflict(c.key());
            }
            return next;
        }
    }

    /** Every campaign, or one advertiser's when {@code advertiser} is not null. */
    public List<Campaign> list(String advertiser) throws IOException {
        Scan scan = new Scan().addColumn(FAMILY, VALUE).setCaching(1000);
        if (advertiser != null) {
            scan.setStartStopRowForPrefixScan((advertiser + "\0").getBytes(StandardCharsets.UTF_8));
        }
        List<Campaign> out = new ArrayList<>();
        try (Table t = connection.getTable(layout.campaignsTable()); ResultScanner s = t.getScanner(scan)) {
            for (Result r : s) {
                out.add(CampaignJson.read(r.getValue(FAMILY, VALUE)));
            }
        }
        return out;
    }

    static byte[] row(String advertiser, String campaign) {
        return (advertiser + "\0" + campaign).getBytes(StandardCharsets.UTF_8);
    }
}
