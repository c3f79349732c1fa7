package io.adreport.launcher.cli;

import io.adreport.client.cli.Args;
import io.adreport.report.ReportConfig;
import io.adreport.report.api.ReportApi;
import io.adreport.http.auth.ApiKeys;
import io.adreport.schema.meta.ApiKeyStore;
import java.io.PrintStream;
import java.time.Clock;
import org.apache.hadoop.hbase.client.Connection;

/** {@code bin/adreport keys add --role ROLE | revoke KEY | list}. */
final class KeysCommand {
    private KeysCommand() {
    }

    static int run(Context ctx, Args args, PrintStream out) throws Exception {
        if (args.positionals().isEmpty()) {
            throw new Args.UsageException("usage: bin/adreport keys add --role ROLE | keys revoke KEY | keys list");
        }
        ReportConfig config = ReportConfig.from(ctx.settings().resolve(ReportConfig.DEF));
        try (Connection c = ctx.connect()) {
            ApiKeys keys = ReportApi.apiKeys(new ApiKeyStore(c, ctx.layout(), Clock.systemUTC()), ctx.cube(), config, Clock.systemUTC());
            switch (args.positionals().get(0)) {
                case "add" -> {
                    Commands.expect(args, 1, "keys add --role analyst|adserver|privacy|ingest|internal|advertiser:ID|publisher:ID");
                    String role = args.flag("role");
                    if (role == null) {
                        throw new Args.UsageException("keys add needs --role analyst|adserver|privacy|ingest|internal|advertiser:ID|publisher:ID");
                    }
                    String key = keys.create(role);
                    out.println("created a key for role " + role + " (only its hash is stored; keep it now):");
                    out.println(key);
                }
                case "revoke" -> {
                    Commands.expect(args, 2, "keys revoke KEY_OR_HASH_PREFIX");
                    out.println("revoked key " + keys.revoke(args.positionals().get(1)));
                }
                case "list" -> {
                    out.printf("%-16s %-28s %-24s %s%n", "hash", "role", "created", "revoked");
                    for (ApiKeys.KeyInfo k : keys.list()) {
                        out.printf("%-16s %-28s %-24s %s%n", k.hash().substring(0, 16), k.role(), k.createdAt(),
                                k.revokedAt() == null ? "" : k.revokedAt());
                    }
                }
                default -> throw new Args.UsageException("unknown keys command '" + args.positionals().get(0) + "'");
            }
        }
        return 0;
    }
}
