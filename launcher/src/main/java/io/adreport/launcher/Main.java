package io.adreport.launcher;

import io.adreport.client.cli.Args;
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
        } catch (Args.UsageException e) {
            System.err.println("adreport: " + e.getMessage());
            System.err.println("Run 'bin/adreport help' for usage.");
            code = 64;
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("adreport: " + e.getMessage());
            code = 1;
        } catch (Exception | Error e) {
            System.err.println("adreport: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        System.exit(code);
    }
}
