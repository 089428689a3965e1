rchar: 26665528262
wchar: 13655
syscr: 203660
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
