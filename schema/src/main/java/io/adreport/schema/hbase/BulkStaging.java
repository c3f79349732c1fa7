package io.adreport.schema.hbase;

import java.io.IOException;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Where HFiles wait for a bulk load: a fresh directory under HBase's own staging directory
 * ({@code hbase.fs.tmp.dir}, as {@code HFileOutputFormat2} uses) on the cluster's file system
 * ({@code fs.defaultFS}), so that every region server can read what any host wrote — HDFS on a
 * cluster, the local disk when everything runs in one process. The one rule for the nightly
 * job's corrections and the segment loads.
 */
public final class BulkStaging {
    private BulkStaging() {
    }

    /** A new, fully qualified directory named {@code prefix-<random>} (not created). */
    public static Path fresh(Configuration conf, String prefix) throws IOException {
        String base = conf.get("hbase.fs.tmp.dir", "/user/" + System.getProperty("user.name") + "/hbase-staging");
        Path dir = new Path(base, prefix + "-" + UUID.randomUUID());
        return dir.getFileSystem(conf).makeQualified(dir);
    }
}
