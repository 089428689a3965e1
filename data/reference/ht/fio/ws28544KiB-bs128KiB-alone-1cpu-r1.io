rchar: 37657971155
wchar: 5981
syscr: 287497
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
