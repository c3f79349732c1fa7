package io.adreport.aggregator.store;

/** The raw table could not be written (HBase unreachable, timed out, shutting down): answer 503. */
public final class StoreUnavailable extends Exception {
    public StoreUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
