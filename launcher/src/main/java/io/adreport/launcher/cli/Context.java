package io.adreport.launcher.cli;

import io.adreport.schema.config.CoreConfig;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.hbase.HBaseEndpoint;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * What a command that talks to HBase needs: core settings, the cube, the table layout and the
 * HBase client configuration (a running local stack's, or the cluster's from HBASE_CONF_DIR).
 */
public record Context(Settings settings, CoreConfig core, Cube cube, TableLayout layout) {

    public static Context from(Settings settings) {
        CoreConfig core = CoreConfig.from(settings.resolve(CoreConfig.DEF));
        Cube cube = core.loadCube();
        return new Context(settings, core, cube, new TableLayout(cube, core.namespaceFor(cube)));
    }

    public Configuration hbaseConfiguration() {
        return HBaseEndpoint.configuration(core.dataDir());
    }

    /** A connection to the configured HBase; the caller closes it. */
    public Connection connect() throws IOException {
        return ConnectionFactory.createConnection(hbaseConfiguration());
    }
}
