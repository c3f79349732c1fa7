package io.adreport.schema.config;

import io.adreport.schema.config.ConfigDef.Type;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings every process shares: where the data lives, which cube, which namespace, the device
 * hash secret and the accept window.
 *
 * @param dataDir          local data directory (embedded HBase, generated secrets, keys)
 * @param cubeFile         cube file, or null for the built-in ads cube
 * @param namespace        HBase namespace of the tables ("" means the cube's name)
 * @param deviceSecret     device hash secret, or null (only local mode may generate one)
 * @param previousSecret   the device hash secret being rotated out, or null (see docs/SECURITY.md)
 * @param acceptWindow     how old an event's time may be at ingest
 */
public record CoreConfig(Path dataDir, Path cubeFile, String namespace, String deviceSecret, String previousSecret,
                         Duration acceptWindow) {

    public static final ConfigDef DEF = new ConfigDef("Core")
            .define("data.dir", Type.PATH, "./data", "Local data directory: embedded HBase files, ZooKeeper port, generated secret, analyst key")
            .define("cube.file", Type.PATH, "", "Cube file (YAML or JSON); empty means the built-in ads cube")
            .define("hbase.namespace", Type.STRING, "", null, v -> v.isEmpty() || v.matches("[A-Za-z0-9_]+"),
                    "HBase namespace of all tables; empty means the cube's name")
            .define("device.hash.secret", Type.STRING, "", "at least 16 characters", v -> v.isEmpty() || v.length() >= 16,
                    "HMAC-SHA256 secret for device ids; required outside local mode (local mode generates one in the data directory)")
            .define("device.hash.secret.previous", Type.STRING, "", "at least 16 characters", v -> v.isEmpty() || v.length() >= 16,
                    "The device secret being rotated out: while set, checks, ad selection and privacy deletions also read data "
                            + "stored under it and the nightly pass moves it to the current secret (docs/SECURITY.md)")
            .define("ingest.accept.window.days", Type.INT, "7", ConfigDef.between(1, 36500),
                    "Oldest accepted event time, in days before now; widen it to back-fill history");

    public static CoreConfig from(ConfigDef.Values v) {
        String cube = v.string("cube.file");
        String secret = v.string("device.hash.secret");
        String previous = v.string("device.hash.secret.previous");
        return new CoreConfig(v.path("data.dir"), cube.isEmpty() ? null : Path.of(cube), v.string("hbase.namespace"),
                secret.isEmpty() ? null : secret, previous.isEmpty() ? null : previous, Duration.ofDays(v.integer("ingest.accept.window.days")));
    }

    public Cube loadCube() {
        return cubeFile == null ? CubeLoader.defaultCube() : CubeLoader.load(cubeFile);
    }

    public String namespaceFor(Cube cube) {
        return namespace.isEmpty() ? cube.name() : namespace;
    }
}
