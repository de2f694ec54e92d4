<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true" %>
<%-- The app-redeploy drill: which release of the application this node runs (the Profile class's). --%>
release=<%= io.tandem.drill.values.Profile.release() %>
