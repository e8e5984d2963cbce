/** Successes that several rows answer with. */

export const magazineList = { status: 200, schema: 'MagazineList', example: 'MagazineList' } as const;

export const idReply = (status: 200 | 201, example: string) => ({ status, schema: 'IdReply', example }) as const;
