print("folio: the command-line tool is not built yet")
