package io.adreport.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One small HTTP call on the calling thread, three ways, interleaved call by call so the machine's
 * load falls on all three alike: the JDK {@link HttpClient}'s {@code sendAsync} then {@code get}
 * (the report API's old live-counts call), its blocking {@code send}, and a kept-alive
 * {@link HttpURLConnection}. What the report's series pays for a hand-off to the client's
 * threads, beside the same call made on the waiting thread.
 *
 * <pre>java -cp "$(cat benchmarks/target/classpath.txt):benchmarks/target/classes" io.adreport.benchmarks.HttpCallLatency URL [CALLS] [ROUNDS]</pre>
 *
 * URL: any GET route that answers 200 at once (an aggregator's {@code /healthz}). Each round makes
 * CALLS calls each way; the last round's percentiles are printed (the earlier ones warm up).
 */
public final class HttpCallLatency {
    private HttpCallLatency() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: HttpCallLatency URL [CALLS] [ROUNDS]");
            System.exit(2);
        }
        URI uri = URI.create(args[0]);
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build();
        String[] names = {"sendAsync+get", "send", "HttpURLConnection"};
        for (int round = 1; round <= rounds; round++) {
            long[][] nanos = new long[3][calls];
            for (int i = 0; i < calls; i++) {
                for (int way = 0; way < 3; way++) {
                    long t0 = System.nanoTime();
                    int status = switch (way) {
                        case 0 -> client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).get(2, TimeUnit.SECONDS).statusCode();
                        case 1 -> client.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode();
                        default -> plain(uri);
                    };
                    nanos[way][i] = System.nanoTime() - t0;
                    if (status != 200) {
                        throw new IllegalStateException(names[way] + ": HTTP " + status + " from " + uri);
                    }
                }
            }
            System.out.printf("round %d of %d, %d calls each way%s%n", round, rounds, calls, round < rounds ? " (warm-up)" : "");
            for (int way = 0; way < 3; way++) {
                long[] n = nanos[way];
                Arrays.sort(n);
                System.out.printf("  %-18s p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  max %7.2f ms%n", names[way],
                        ms(n, 0.50), ms(n, 0.90), ms(n, 0.99), n[n.length - 1] / 1e6);
            }
        }
    }

    private static int plain(URI uri) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(2000);
        int status = c.getResponseCode();
        try (InputStream in = status == 200 ? c.getInputStream() : c.getErrorStream()) {
            if (in != null) {
                in.readAllBytes(); // read to the end: the connection goes back to the keep-alive cache
            }
        }
        return status;
    }

    private static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
}
