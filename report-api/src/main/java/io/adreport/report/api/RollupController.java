package io.adreport.report.api;

import io.adreport.http.auth.AccessPolicy;
import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.DerivedMetric;
import io.adreport.schema.cube.Granularity;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.Rollup;
import io.javalin.http.Context;
import java.util.List;
import io.adreport.http.BearerAuth;
import io.adreport.http.RecordSchemas;

/** {@code GET /v1/rollups}: the rollups the caller may read. */
final class RollupController {

    /** One rollup as the API describes it. */
    @RecordSchemas.Name("Rollup")
    public record RollupInfo(String name, List<String> dimensions, @RecordSchemas.Nullable String tenant, List<String> granularities,
                             List<String> metrics, List<String> derived) {
    }

    /** The body: rollups and, for a tenant key, its role. */
    @RecordSchemas.Name("Rollups")
    public record RollupsResponse(String role, List<RollupInfo> rollups) {
    }

    private final Cube cube;
    private final AccessPolicy policy;

    RollupController(Cube cube, AccessPolicy policy) {
        this.cube = cube;
        this.policy = policy;
    }

    void list(Context ctx) {
        var role = BearerAuth.role(ctx);
        List<String> metrics = cube.metrics().stream().map(Metric::name).toList();
        List<String> derived = cube.derived().stream().map(DerivedMetric::name).toList();
        List<RollupInfo> out = policy.readable(role).stream()
                .map((Rollup r) -> new RollupInfo(r.name(), r.dimensions(), r.tenant(),
                        r.granularities().stream().map(Granularity::label).toList(), metrics, derived))
                .toList();
        ctx.json(new RollupsResponse(role.toString(), out));
    }
}
