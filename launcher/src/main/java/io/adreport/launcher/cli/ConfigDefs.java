package io.adreport.launcher.cli;

import io.adreport.launcher.local.LocalStack;
import io.adreport.schema.config.ConfigDef;
import io.adreport.schema.config.CoreConfig;
import java.util.List;

/** Every module's settings table, in the order the README lists them. */
public final class ConfigDefs {
    private ConfigDefs() {
    }

    public static List<ConfigDef> all() {
        return List.of(CoreConfig.DEF, LocalStack.DEF);
    }
}
