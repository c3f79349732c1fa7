package io.adreport.launcher;

import io.adreport.launcher.cli.Commands;
import java.util.Arrays;

/** Entry point of {@code bin/adreport}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] argv) {
        int code;
        try {
            code = Commands.run(Arrays.asList(argv), System.out, System.err);
        } catch (Exception e) {
            code = Commands.exitCode(e, System.err);
        } catch (Error e) {
            System.err.println("adreport: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        System.exit(code);
    }
}
