package io.adreport.schema.cube;

/** A cube file that cannot be used; the message names the file, the entry and the rule. */
public class CubeException extends RuntimeException {
    public CubeException(String message) {
        super(message);
    }

    public CubeException(String message, Throwable cause) {
        super(message, cause);
    }
}
