package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.junit.jupiter.api.Test;

/**
 * The local runner's small sort buffers hold after Hadoop's defaults have been loaded into the
 * JVM (any job that ran before does that): a 100 MB buffer per map thread ran a test JVM out of
 * heap. A value the caller chose stays.
 */
class LocalRunnerSettingsTest {
    @Test
    void small_sort_buffers_even_when_hadoops_defaults_are_loaded_and_the_callers_choice_stays() {
        new JobConf(); // registers mapred-default.xml as a default resource of every configuration
        Configuration defaults = new Configuration();
        assertEquals("100", defaults.get("mapreduce.task.io.sort.mb"), "Hadoop's own default, as the test's premise");

        ReconcileJob.localRunner(defaults, Path.of("work"));
        assertEquals("32", defaults.get("mapreduce.task.io.sort.mb"));
        assertEquals("2", defaults.get("mapreduce.local.map.tasks.maximum"));

        Configuration chosen = new Configuration();
        chosen.set("mapreduce.task.io.sort.mb", "64");
        ReconcileJob.localRunner(chosen, Path.of("work"));
        assertEquals("64", chosen.get("mapreduce.task.io.sort.mb"));
    }
}
