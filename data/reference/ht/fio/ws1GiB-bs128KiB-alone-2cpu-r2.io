rchar: 86837931086
wchar: 18969
syscr: 662760
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
