package io.adreport.report.query;

/** HBase could not be read in time or at all: the service's fault, answered with 503. */
public final class ReadFailure extends RuntimeException {
    public ReadFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
