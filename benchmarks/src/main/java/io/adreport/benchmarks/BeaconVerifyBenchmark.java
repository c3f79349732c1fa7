package io.adreport.benchmarks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.CubeLoader;
import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.Event;
import io.adreport.schema.event.EventParser;
import io.adreport.schema.event.EventRejected;
import io.adreport.schema.trust.BeaconKeys;
import io.adreport.schema.trust.BeaconSigner;
import io.adreport.schema.trust.TrustConfig;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of verifying a beacon's signature at the pixel: one operation = one impression beacon
 * of 1,024 (signed by {@link BeaconSigner} as {@code /v1/serve/ad} signs them, device as its
 * token), from its decoded query parameters to a validated {@link Event}. {@code unsigned}: what
 * the pixel does with signatures off (build the fields, {@link EventParser#parse}); {@code signed}:
 * {@link BeaconSigner#verify} first (canonical form, HMAC-SHA256, constant-time compare, expiry),
 * then the same. Neither includes HTTP or the raw write, which are the same either way.
 *
 * <p>Run: {@code mvn -B -o -q package -pl benchmarks -am -DskipTests && benchmarks/run-jmh.sh BeaconVerifyBenchmark}
 */
@Threads(1)
public class BeaconVerifyBenchmark extends ThroughputBenchmark {
    private final List<Map<String, List<String>>> beacons = new ArrayList<>();
    private BeaconSigner signer;
    private EventParser parser;
    private Cube cube;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        cube = CubeLoader.defaultCube();
        DeviceHasher hasher = new DeviceHasher("benchmark-secret-0123456789".getBytes(StandardCharsets.UTF_8));
        parser = new EventParser(cube, Clock.systemUTC(), Duration.ofDays(7), hasher);
        signer = new BeaconSigner(BeaconKeys.parse("k2:benchmark-beacon-key-two,k1:benchmark-beacon-key-one"), Duration.ofHours(1),
                Clock.systemUTC());
        for (int i = 0; i < 1024; i++) {
            String q = signer.query(List.of(Map.entry("type", "impression"), Map.entry("id", UUID.randomUUID().toString()),
                    Map.entry("ts", Long.toString(System.currentTimeMillis())), Map.entry("advertiser", "adv-" + i % 50),
                    Map.entry("campaign", "camp-" + i % 200), Map.entry("creative", "cr-" + i % 400), Map.entry("publisher", "pub-" + i % 30),
                    Map.entry("zone", "top"), Map.entry(BeaconSigner.DEVICE_TOKEN, hasher.hash("device-" + i)),
                    Map.entry("country", "US"), Map.entry("deviceType", "phone"), Map.entry("costMicros", Long.toString(1000 + i))));
            Map<String, List<String>> params = new LinkedHashMap<>();
            for (String p : q.split("&")) {
                int eq = p.indexOf('=');
                params.put(URLDecoder.decode(p.substring(0, eq), StandardCharsets.UTF_8),
                        List.of(URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8)));
            }
            beacons.add(params);
        }
    }

    private Map<String, List<String>> nextBeacon() {
        next = (next + 1) & 1023;
        return beacons.get(next);
    }

    @Benchmark
    public Event unsigned() throws EventRejected {
        return parse(signer.verify(nextBeacon(), TrustConfig.Mode.OFF));
    }

    @Benchmark
    public Event signed() throws EventRejected {
        BeaconSigner.Verdict v = signer.verify(nextBeacon(), TrustConfig.Mode.REQUIRED);
        if (v.refused() != null) {
            throw new IllegalStateException("refused: " + v.refused().label);
        }
        return parse(v);
    }

    /** As the pixel builds its event: numeric fields as numbers, the device token as the hashed value. */
    private Event parse(BeaconSigner.Verdict v) throws EventRejected {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        v.fields().forEach((name, value) -> {
            boolean numeric = cube.numericField(name).isPresent() || name.equals(cube.event().timeField());
            if (numeric && value.matches("-?\\d{1,18}")) {
                node.put(name, Long.parseLong(value));
            } else {
                node.put(name, value);
            }
        });
        Event e = parser.parse(node);
        Map<String, String> hashed = Map.of("device", v.deviceToken());
        return new Event(e.type(), e.id(), e.ts(), e.dimensions(), e.numbers(), e.joinRef(), hashed);
    }
}
