/* pm_problem_int.h - the inside of pm_problem_t, read by the assembly (pm_fem.c). */
#ifndef PMESH_PM_PROBLEM_INT_H
#define PMESH_PM_PROBLEM_INT_H

#include "pmesh/pm_problem.h"

/** One value on a group (group NULL: every element). */
typedef struct pm_problem_entry {
  char *group;      /* owned */
  pm_value_t value; /* value.expr points into an owned copy */
} pm_problem_entry_t;

typedef struct pm_problem_list {
  int n, cap;
  pm_problem_entry_t *e;
} pm_problem_list_t;

struct pm_problem {
  pm_scheme_t scheme;
  double area;
  pm_problem_list_t source, conductivity, dirichlet, neumann;
  pm_problem_list_t robin_h, robin_uinf; /* entry i of each: the i-th Robin condition */
};

#endif
