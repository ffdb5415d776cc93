-- wrk script: POSTs Persons with unique names (one per request), spread over ages, genders and teams.
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
  counter = counter + 1
  local n = counter
  local body = string.format('{"apiVersion":"people.svc.run/v1alpha1","kind":"Person","metadata":{"name":"w-%d","labels":{"people.svc.run/team":"team-%d"}},"spec":{"name":"W %d","age":%d,"gender":"%s"}}', n, n % 50, n, n % 151, (n % 2 == 0) and "FEMALE" or "MALE")
  return wrk.format(nil, "/apis/people.svc.run/v1alpha1/persons", nil, body)
end
