package io.adreport.launcher.local;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.CubeLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** --demo refuses, before anything starts, a cube it cannot show ad traffic in. */
class DemoCubeTest {

    @Test
    void the_ads_cube_runs_the_demo() {
        assertDoesNotThrow(() -> LocalStack.requireDemoCube(CubeLoader.defaultCube()));
    }

    @Test
    void another_cube_is_refused_with_what_to_do_instead() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LocalStack.requireDemoCube(CubeLoader.load(Path.of("../docs/examples/wikiticker.yaml"))));
        assertTrue(e.getMessage().contains("--demo") && e.getMessage().contains("bin/adreport replay"), e.getMessage());
    }
}
