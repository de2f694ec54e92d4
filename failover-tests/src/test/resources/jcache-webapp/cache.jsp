<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
    import="java.util.*,javax.cache.*,javax.cache.configuration.MutableConfiguration,javax.cache.spi.CachingProvider" %>
<%--
  An application that brings its own JCache (cache-api and a provider in WEB-INF/lib) and knows nothing of Tandem.
  The drop-in jar in $CATALINA_BASE/lib must stay invisible to it: Caching finds providers through the ServiceLoader
  of the webapp class loader, which also sees every META-INF/services file of the common class loader.
--%>
<%
  List<String> providers = new ArrayList<>();
  for (CachingProvider p : Caching.getCachingProviders()) {
    providers.add(p.getClass().getName());
  }
  CachingProvider provider = Caching.getCachingProvider();
  CacheManager manager = provider.getCacheManager();
  Cache<String, String> cache = manager.getCache("probe", String.class, String.class);
  if (cache == null) {
    cache = manager.createCache("probe", new MutableConfiguration<String, String>().setTypes(String.class, String.class));
  }
  cache.put("key", "value-" + request.getParameter("v"));
  out.print("jcache provider=" + provider.getClass().getName() + " providers=" + providers + " cached=" + cache.get("key"));
%>
