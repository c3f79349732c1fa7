package io.adreport.testkit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving tests the JVM-wide {@link MiniHBase}: started on first use, stopped
 * when the test JVM's root context closes. Use {@code @ExtendWith(HBaseExtension.class)} and
 * take a {@code MiniHBase} parameter in a constructor, {@code @BeforeAll} or test method.
 */
public final class HBaseExtension implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(HBaseExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == MiniHBase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster(context);
    }

    /** The shared cluster, started once per JVM and closed with the root context. */
    public static MiniHBase cluster(ExtensionContext context) {
        return context.getRoot().getStore(NS)
                .getOrComputeIfAbsent("cluster", k -> new Holder(MiniHBase.start()), Holder.class).cluster;
    }

    private record Holder(MiniHBase cluster) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            cluster.stop();
        }
    }
}
