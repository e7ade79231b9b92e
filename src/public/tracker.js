/* svc tracker placeholder: the real tracker is built from tracker/ (issue 5). It records nothing. */
