rchar: 25488632736
wchar: 13656
syscr: 194680
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
