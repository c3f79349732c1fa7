package io.adreport.reconcile.profiles;

import io.adreport.schema.profile.UnidentifiedDevices;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;

/**
 * Whether the recount's map tasks also repair device view histories ({@link ViewRepair}), and
 * what they need for it, carried in the job configuration so that a task on another host needs
 * nothing else. Only the keyed hashes of the ids that name no device travel, never the device
 * secret: the pass sees only hashes.
 *
 * @param repair             whether the map tasks repair views (check, trim, move)
 * @param rewrite            whether they also write every impression's view again ({@link ViewRewrite})
 * @param unidentifiedHashes keyed hashes of the ids that name no device ({@link UnidentifiedDevices#hashes})
 */
public record ViewRepairSettings(boolean repair, boolean rewrite, Set<String> unidentifiedHashes) {
    /** Job setting: whether the map tasks repair view histories. */
    public static final String REPAIR = "adreport.reconcile.views.repair";
    /** Job setting: whether the map tasks also write the day's views again. */
    public static final String REWRITE = "adreport.reconcile.views.rewrite";
    /** Job setting: the comma-separated hex hashes of the ids that name no device. */
    public static final String UNIDENTIFIED = "adreport.reconcile.views.unidentified";

    /** No repair. */
    public static final ViewRepairSettings OFF = new ViewRepairSettings(false, false, Set.of());

    public ViewRepairSettings {
        unidentifiedHashes = Set.copyOf(unidentifiedHashes);
    }

    /** Repair, re-writing the views or not, recognising the ids {@code unidentified} knows. */
    public static ViewRepairSettings of(UnidentifiedDevices unidentified, boolean rewrite) {
        return new ViewRepairSettings(true, rewrite, unidentified.hashes());
    }

    /** Writes what {@link #from} reads into {@code conf}. */
    public void applyTo(Configuration conf) {
        conf.setBoolean(REPAIR, repair);
        conf.setBoolean(REWRITE, rewrite);
        conf.set(UNIDENTIFIED, String.join(",", new TreeSet<>(unidentifiedHashes)));
    }

    /** The settings a task finds in its job configuration; none written means no repair. */
    public static ViewRepairSettings from(Configuration conf) {
        if (!conf.getBoolean(REPAIR, false)) {
            return OFF;
        }
        String hashes = conf.get(UNIDENTIFIED, "");
        return new ViewRepairSettings(true, conf.getBoolean(REWRITE, true), hashes.isEmpty() ? Set.of() : Set.copyOf(Arrays.asList(hashes.split(","))));
    }

    /** The ids that name no device, as a task recognises them. */
    public UnidentifiedDevices unidentified() {
        return UnidentifiedDevices.ofHashes(unidentifiedHashes);
    }
}
