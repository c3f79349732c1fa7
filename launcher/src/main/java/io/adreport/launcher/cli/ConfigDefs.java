package io.adreport.launcher.cli;

import io.adreport.aggregator.AggregatorConfig;
import io.adreport.launcher.local.LocalStack;
import io.adreport.reconcile.ReconcileConfig;
import io.adreport.report.ReportConfig;
import io.adreport.privacy.PrivacyConfig;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.serving.ServeConfig;
import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.CoreConfig;
import io.adreport.schema.trust.TrustConfig;
import java.util.List;

/** Every module's settings table, in the order the README lists them. */
public final class ConfigDefs {
    private ConfigDefs() {
    }

    public static List<ConfigDef> all() {
        return List.of(CoreConfig.DEF, AggregatorConfig.DEF, TrustConfig.DEF, ReportConfig.DEF, ProfileConfig.DEF, ServeConfig.DEF, PrivacyConfig.DEF, ReconcileConfig.DEF, LocalStack.DEF);
    }

    /** The README's configuration section. */
    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        for (ConfigDef def : all()) {
            sb.append("### ").append(def.title()).append("\n\n").append(def.markdown()).append('\n');
        }
        return sb.toString();
    }
}
