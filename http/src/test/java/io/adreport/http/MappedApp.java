package io.adreport.http;

import io.javalin.Javalin;
import io.javalin.http.Handler;
import java.util.Map;

/** A Javalin app on a free port with the error mapper mounted as the APIs mount it, serving GET routes. */
final class MappedApp {
    private MappedApp() {
    }

    /** Started; the caller stops it. {@code routes}: path → handler. */
    static Javalin start(Map<String, Handler> routes) {
        ErrorMapper errors = new ErrorMapper();
        Javalin app = Javalin.create(cfg -> {
            cfg.showJavalinBanner = false;
            cfg.router.mount(router -> {
                router.before(ErrorMapper::tag);
                routes.forEach(router::get);
                router.exception(Exception.class, errors::handle);
            });
        });
        return app.start(0);
    }
}
