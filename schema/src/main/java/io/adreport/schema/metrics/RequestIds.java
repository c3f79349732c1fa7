package io.adreport.schema.metrics;

import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The one rule for request ids, shared by every HTTP server of adreport: a caller's
 * {@value #HEADER} is kept when it is a plain token (1-64 letters, digits, '.', '_', '-'; a load
 * balancer's or a client's id then follows the request through), otherwise a new random id is
 * made. Each server echoes the id in the {@value #HEADER} answer header, puts it in the body of a
 * server error and in the log line of that error, so an operator finds the one from the other.
 */
public final class RequestIds {
    public static final String HEADER = "X-Request-Id";
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private RequestIds() {
    }

    /** The id of a request that came with {@code header} (null when absent). */
    public static String of(String header) {
        if (header != null && TOKEN.matcher(header).matches()) {
            return header;
        }
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }
}
