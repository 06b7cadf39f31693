"""The project's URLs plus ``/_bench/signed-in/``: the empty signed-in view the scene page is
measured against (session and user lookup, nothing else), only in the benchmark's server."""

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def signed_in(request: HttpRequest) -> HttpResponse:
    """200 with the user's name: the cost of any signed-in page before it does anything."""
    assert request.user.is_authenticated
    return HttpResponse(request.user.get_username())


urlpatterns = [
    path("_bench/signed-in/", signed_in),
    path("", include("partida.urls")),
]
