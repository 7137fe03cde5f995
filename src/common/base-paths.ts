/** The data store's layout (backends.md §2): homes under `/<zone>/home`, trash under `/<zone>/trash/home`. */
export interface BasePaths {
  user_home_path: string;
  user_trash_path: string;
  base_trash_path: string;
}

export function basePaths(zone: string, shortUsername: string): BasePaths {
  return {
    user_home_path: `/${zone}/home/${shortUsername}`,
    user_trash_path: `/${zone}/trash/home/${shortUsername}`,
    base_trash_path: `/${zone}/trash`,
  };
}
