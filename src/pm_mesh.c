/* placeholder */
typedef int pm_placeholder_pm_mesh_;
