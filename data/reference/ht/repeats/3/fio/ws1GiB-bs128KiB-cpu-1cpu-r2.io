rchar: 26055650214
wchar: 13656
syscr: 199008
syscw: 5
read_bytes: 212992
write_bytes: 32768
cancelled_write_bytes: 0
