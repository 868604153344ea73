/** Bad input data (a malformed file, trace line, vector record, configuration): exit code 2 from a command. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
