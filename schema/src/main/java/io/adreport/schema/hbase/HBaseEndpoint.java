package io.adreport.schema.hbase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * Finds the HBase a command talks to, by configuration alone:
 * <ol>
 *   <li>a running local stack: {@code DATA_DIR/zk.port} holds the embedded ZooKeeper's port,
 *       written by {@code bin/adreport local};</li>
 *   <li>a real cluster: {@code hbase-site.xml} in {@code HBASE_CONF_DIR}, with the cluster's
 *       {@code core-site.xml} and {@code hdfs-site.xml} from {@code HADOOP_CONF_DIR} and from
 *       {@code HBASE_CONF_DIR} (read first, so hbase-site wins).</li>
 * </ol>
 */
public final class HBaseEndpoint {
    /** File in the data directory holding the embedded ZooKeeper client port. */
    public static final String ZK_PORT_FILE = "zk.port";

    private HBaseEndpoint() {
    }

    public static Configuration configuration(Path dataDir) {
        Path portFile = dataDir.resolve(ZK_PORT_FILE);
        if (Files.isRegularFile(portFile)) {
            return local(readPort(portFile));
        }
        String confDir = System.getenv("HBASE_CONF_DIR");
        if (confDir != null && Files.isRegularFile(Path.of(confDir, "hbase-site.xml"))) {
            Configuration conf = HBaseConfiguration.create();
            // The cluster's file system (fs.defaultFS, HDFS client settings) as well as its HBase: bulk
            // loads stage their HFiles there (BulkStaging), where every region server can read them.
            for (String dir : new String[] {System.getenv("HADOOP_CONF_DIR"), confDir}) {
                for (String file : new String[] {"core-site.xml", "hdfs-site.xml"}) {
                    if (dir != null && Files.isRegularFile(Path.of(dir, file))) {
                        conf.addResource(new org.apache.hadoop.fs.Path(Path.of(dir, file).toUri()));
                    }
                }
            }
            conf.addResource(new org.apache.hadoop.fs.Path(Path.of(confDir, "hbase-site.xml").toUri()));
            return conf;
        }
        throw new IllegalStateException("no HBase to talk to: no running local stack in " + dataDir.toAbsolutePath()
                + " (start one with: bin/adreport local --data-dir " + dataDir + ")"
                + " and HBASE_CONF_DIR does not point at a directory with hbase-site.xml");
    }

    /** Client configuration for a ZooKeeper on localhost:port. */
    public static Configuration local(int zkPort) {
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", "localhost");
        conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
        conf.setInt("hbase.client.retries.number", 10);
        return conf;
    }

    private static int readPort(Path file) {
        try {
            return Integer.parseInt(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException(file + ": cannot read the ZooKeeper port: " + e.getMessage(), e);
        }
    }
}
