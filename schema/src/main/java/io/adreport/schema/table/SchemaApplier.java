package io.adreport.schema.table;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/**
 * {@code schema apply}: creates missing tables and verifies existing ones against the cube. It
 * never changes what an existing table holds: a difference (TTL, Bloom filter, encoding, region
 * count, an unexpected family) is reported as drift for an operator to decide on, because
 * silently re-splitting or shortening a TTL can destroy data. The one change it makes is additive:
 * a family the cube declares and the table lacks (e.g. the device index {@code ev} added to
 * profiles tables created before it) is added, since that touches no stored cell. Idempotent: a
 * second run creates nothing.
 */
public final class SchemaApplier {

    /** What happened (or would happen) to one table. */
    public record TableResult(TableName table, Action action, List<String> drift) {
        public TableResult {
            drift = List.copyOf(drift);
        }

        @Override
        public String toString() {
            String s = String.format("%-8s %s", action.label, table.getNameAsString());
            return drift.isEmpty() ? s : s + "\n" + String.join("\n", drift.stream().map(d -> "         drift: " + d).toList());
        }
    }

    public enum Action {
        CREATED("created"), WOULD_CREATE("missing"), EXTENDED("extended"), OK("ok"), DRIFT("drift");

        final String label;

        Action(String label) {
            this.label = label;
        }
    }

    /** The outcome of one apply. */
    public record Report(List<TableResult> tables) {
        public Report {
            tables = List.copyOf(tables);
        }

        public boolean hasDrift() {
            return tables.stream().anyMatch(t -> t.action() == Action.DRIFT);
        }

        public long count(Action a) {
            return tables.stream().filter(t -> t.action() == a).count();
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            tables.forEach(t -> sb.append(t).append('\n'));
            sb.append(String.format("%d created, %d missing, %d ok, %d with drift",
                    count(Action.CREATED), count(Action.WOULD_CREATE), count(Action.OK), count(Action.DRIFT)));
            if (count(Action.EXTENDED) > 0) {
                sb.append(String.format(", %d extended", count(Action.EXTENDED)));
            }
            return sb.toString();
        }
    }

    private final TableLayout layout;

    private final java.util.Map<TableName, Integer> replication = new java.util.HashMap<>();

    public SchemaApplier(TableLayout layout) {
        this.layout = layout;
    }

    /**
     * Asks for {@code replicas} region replicas of {@code table}: set when the table is created,
     * changed on an existing table by {@link #apply} (a dry run reports the difference as drift).
     */
    public SchemaApplier withRegionReplication(TableName table, int replicas) {
        replication.put(table, replicas);
        return this;
    }

    private TableDescriptor wanted(TableLayout.Spec spec) {
        Integer replicas = replication.get(spec.descriptor().getTableName());
        return replicas == null ? spec.descriptor()
                : TableDescriptorBuilder.newBuilder(spec.descriptor()).setRegionReplication(replicas).build();
    }

    public Report apply(Admin admin, boolean dryRun) throws IOException {
        if (!dryRun) {
            ensureNamespace(admin);
        }
        List<TableResult> results = new ArrayList<>();
        // Missing tables are created together: the master runs the create procedures side by side
        // (a cube's 15 pre-split tables one after another took most of a minute in a mini cluster);
        // the apply returns once every one of them is enabled, as the one-by-one calls did.
        List<Future<Void>> creating = new ArrayList<>();
        for (TableLayout.Spec spec : layout.specs()) {
            TableName name = spec.descriptor().getTableName();
            if (!namespaceExists(admin) || !admin.tableExists(name)) {
                if (dryRun) {
                    results.add(new TableResult(name, Action.WOULD_CREATE, List.of()));
                } else {
                    creating.add(spec.splits().length == 0 ? admin.createTableAsync(wanted(spec))
                            : admin.createTableAsync(wanted(spec), spec.splits()));
                    results.add(new TableResult(name, Action.CREATED, List.of()));
                }
                continue;
            }
            List<String> drift = drift(admin, spec);
            List<ColumnFamilyDescriptor> missing = missingFamilies(admin, spec);
            if (!missing.isEmpty() && !dryRun) {
                for (ColumnFamilyDescriptor f : missing) {
                    admin.addColumnFamily(name, f);
                }
                drift = drift(admin, spec);
                if (drift.isEmpty()) {
                    results.add(new TableResult(name, Action.EXTENDED, missing.stream()
                            .map(f -> "family '" + f.getNameAsString() + "' added").toList()));
                    continue;
                }
            }
            Integer replicas = replication.get(name);
            int have = admin.getDescriptor(name).getRegionReplication();
            if (replicas != null && have != replicas) {
                if (dryRun) {
                    drift = new ArrayList<>(drift);
                    drift.add("region replication is " + have + ", profiles.region.replication wants " + replicas);
                } else if (drift.isEmpty()) {
                    admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name)).setRegionReplication(replicas).build());
                    results.add(new TableResult(name, Action.EXTENDED, List.of("region replication " + have + " -> " + replicas)));
                    continue;
                }
            }
            results.add(new TableResult(name, drift.isEmpty() ? Action.OK : Action.DRIFT, drift));
        }
        awaitCreated(admin, creating);
        return new Report(results);
    }

    /** Waits for every create, as long as the client's own synchronous calls wait ({@code hbase.client.sync.wait.timeout.msec}). */
    private static void awaitCreated(Admin admin, List<Future<Void>> creating) throws IOException {
        long timeoutMs = admin.getConfiguration().getLong("hbase.client.sync.wait.timeout.msec", 10 * 60_000L);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (Future<Void> f : creating) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the tables were being created");
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("the tables were not created within " + timeoutMs + " ms (hbase.client.sync.wait.timeout.msec)", e);
            }
        }
    }

    private static List<ColumnFamilyDescriptor> missingFamilies(Admin admin, TableLayout.Spec spec) throws IOException {
        TableDescriptor live = admin.getDescriptor(spec.descriptor().getTableName());
        return spec.families().stream().filter(f -> live.getColumnFamily(f.getName()) == null).toList();
    }

    private List<String> drift(Admin admin, TableLayout.Spec spec) throws IOException {
        List<String> drift = new ArrayList<>();
        TableDescriptor live = admin.getDescriptor(spec.descriptor().getTableName());
        for (ColumnFamilyDescriptor want : spec.families()) {
            ColumnFamilyDescriptor have = live.getColumnFamily(want.getName());
            String f = spec.families().size() == 1 ? "" : "family '" + want.getNameAsString() + "': ";
            if (have == null) {
                drift.add("family '" + want.getNameAsString() + "' is missing");
                continue;
            }
            if (have.getTimeToLive() != want.getTimeToLive()) {
                drift.add(f + "TTL is " + have.getTimeToLive() + " s, cube wants " + want.getTimeToLive() + " s");
            }
            if (have.getBloomFilterType() != want.getBloomFilterType()) {
                drift.add(f + "Bloom filter is " + have.getBloomFilterType() + ", cube wants " + want.getBloomFilterType());
            }
            if (have.getDataBlockEncoding() != want.getDataBlockEncoding()) {
                drift.add(f + "block encoding is " + have.getDataBlockEncoding() + ", cube wants " + want.getDataBlockEncoding());
            }
            if (have.getMaxVersions() != want.getMaxVersions()) {
                drift.add(f + "max versions is " + have.getMaxVersions() + ", cube wants " + want.getMaxVersions());
            }
        }
        for (ColumnFamilyDescriptor f : live.getColumnFamilies()) {
            if (spec.families().stream().noneMatch(w -> w.getNameAsString().equals(f.getNameAsString()))) {
                drift.add("unexpected family '" + f.getNameAsString() + "'");
            }
        }
        int regions = admin.getRegions(spec.descriptor().getTableName()).size();
        if (regions < spec.regions()) {
            drift.add("has " + regions + " regions, cube pre-splits " + spec.regions() + " salt buckets");
        }
        return drift;
    }

    private boolean namespaceExists(Admin admin) throws IOException {
        try {
            admin.getNamespaceDescriptor(layout.namespace());
            return true;
        } catch (NamespaceNotFoundException e) {
            return false;
        }
    }

    private void ensureNamespace(Admin admin) throws IOException {
        if (!namespaceExists(admin)) {
            admin.createNamespace(NamespaceDescriptor.create(layout.namespace()).build());
        }
    }
}
